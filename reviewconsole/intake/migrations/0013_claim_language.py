from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('intake', '0012_claim_alignment'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='language',
            field=models.CharField(default='en', help_text='The language the claim is written in (ISO 639-1), as the verifier read it', max_length=8),
        ),
    ]
